// HTML built from templates in which every interpolated value is escaped unless it is itself HTML built
// this way: `html\`<p>${name}</p>\`` cannot be broken by a name such as `<script>`.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A value as HTML: escaped text, or nested templates (arrays joined); null, undefined and false are nothing. */
function fragment(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(fragment).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += fragment(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}
