#!/usr/bin/env node
// The `boxbot` command's launcher, CommonJS on purpose: libuv sizes its thread pool (every file
// system call, the store's fsyncs among them) at its first use, and an ES module entry is read
// through that pool before its first line runs. The default is raised here, before anything is
// loaded, so that a busy gateway's synced writes of different conversations run side by side (the
// file system commits them together) instead of four at a time with every stat and read queued
// behind them. A value set in the environment wins. The command itself is bin/boxbot.js.
process.env.UV_THREADPOOL_SIZE ??= '16';
import('./boxbot.js');
