// Team member endpoints (docs/api-contract.md §15): the five standard operations; delete takes team:write.
import { customFieldSeam } from '../custom-fields/index.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  CreateTeamMemberBody,
  ListTeamMembersQuery,
  TeamMemberSchema,
  UpdateTeamMemberBody,
} from './team-members.schemas.js';
import * as service from './team-members.service.js';

export const teamMemberRoutes = resourceRoutes({
  path: '/v1/team-members',
  names: ['team member', 'team members'],
  scopes: { read: 'team:read', write: 'team:write', delete: 'team:write' },
  schemas: {
    item: TeamMemberSchema,
    create: CreateTeamMemberBody,
    update: UpdateTeamMemberBody,
    list: ListTeamMembersQuery,
  },
  stateErrors: ['CONFLICT'],
  customFields: customFieldSeam('team_member'),
  service: {
    list: service.listTeamMembers,
    present: service.presentTeamMember,
    create: service.createTeamMember,
    get: service.getTeamMember,
    update: service.updateTeamMember,
    delete: service.deleteTeamMember,
  },
});
