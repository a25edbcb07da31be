import { runCli } from './src/cli/index.js';
process.exitCode = await runCli(process.argv.slice(2));
