// An install as the installing account reads it (docs/api-contract.md §25).
import { fromJson } from '../../db/index.js';
import type { AppInstallRow, AppRow } from '../../db/types.js';
import type { Scope } from '../../kernel/scopes.js';
import type { AppInstall } from './apps.schemas.js';

export function presentInstall(row: AppInstallRow, app: AppRow, publisherName: string): AppInstall {
  return {
    id: row.id,
    object: 'app_install',
    app: {
      id: app.id,
      name: app.name,
      website: app.website,
      has_logo: app.logo_sha256 !== null,
      publisher_name: publisherName,
    },
    scopes: fromJson<Scope[]>(row.scopes),
    status: row.status as AppInstall['status'],
    rate_limits: {
      per_minute: row.rate_limit_per_minute,
      per_day: row.rate_limit_per_day,
      burst: row.rate_limit_burst,
    },
    installed_by: { type: row.installed_by_type as 'api_key' | 'cli', id: row.installed_by_id },
    installed_at: row.installed_at,
    last_used_at: row.last_used_at,
    uninstalled_at: row.uninstalled_at,
    uninstalled_reason: row.uninstalled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
