#!/usr/bin/env node
// The `bms` command: runs the compiled CLI (built by `npm install` through the `prepare` script).
import { runCli } from '../dist/cli/index.js';

process.exitCode = await runCli(process.argv.slice(2));
