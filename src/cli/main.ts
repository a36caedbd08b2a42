#!/usr/bin/env node
import { Command } from 'commander';

const program = new Command('gexwh').description('Keeps a local DuckDB warehouse of GEX history in sync').version('0.1.0');
await program.parseAsync(process.argv);
