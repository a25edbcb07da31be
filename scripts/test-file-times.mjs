// A node:test reporter for scripts/run-tests.mjs: one line per top-level test, `<file>\t<ms>`, so the runner can
// say which files took longest (a file's tests run one after another: their sum is the file's time). In the fast
// tier's groups a top-level test is a suite named by its file, and that name is the file.
export default async function* fileTimes(source) {
  for await (const event of source)
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const file = /\.test\.ts$/.test(event.data.name) ? event.data.name : event.data.file;
      yield `${file}\t${event.data.details?.duration_ms ?? 0}\n`;
    }
}
