// saxon-js ships no types: the part of its API the e-invoice validation uses (mail/einvoice-validation.ts).
declare module 'saxon-js' {
  interface SaxonNode {
    getAttribute(name: string): string | null;
    readonly textContent: string | null;
  }
  interface TransformOptions {
    stylesheetInternal: unknown;
    sourceText: string;
    destination: 'document' | 'serialized';
  }
  interface TransformResult {
    principalResult: unknown;
  }
  const SaxonJS: {
    transform(options: TransformOptions, mode: 'sync'): TransformResult;
    XPath: {
      evaluate(
        xpath: string,
        context: unknown,
        options: { namespaceContext?: Record<string, string>; resultForm?: 'array' },
      ): SaxonNode[];
    };
  };
  export default SaxonJS;
}
