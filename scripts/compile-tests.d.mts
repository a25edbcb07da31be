// The types of compile-tests.mjs, for the suite that checks it (test/compile-tests.test.ts).
export interface CompiledCopy {
  /** The folder of the compiled copy. */
  out: string;
  /** How many files this call compiled, of how many. */
  compiled: number;
  total: number;
  /** A `.ts` file of the checkout to its compiled file. */
  toCompiled(file: string): string;
  /** The compiled files named in a text back to their sources. */
  toSource(text: string): string;
}
export function compiledRoot(root: string): string;
export function compileForTests(root: string): Promise<CompiledCopy>;
