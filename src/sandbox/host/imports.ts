// Assembles the whole WASI host a guest instance is given: every interface reads the call
// in progress through one Binding, so an instance can be created before its call exists.
import { cliImports } from './cli.ts';
import { clockAndRandomImports } from './clocks.ts';
import type { Binding } from './context.ts';
import { filesystemImports } from './filesystem.ts';
import { httpImports } from './http.ts';
import { ioImports } from './io.ts';
import { socketsImports } from './sockets.ts';

/** The import object for one guest instance (keys are jco's unversioned interface names). */
export function hostImports(binding: Binding): Record<string, Record<string, unknown>> {
  return {
    ...ioImports(),
    ...cliImports(binding),
    ...clockAndRandomImports(),
    ...filesystemImports(binding),
    ...httpImports(binding),
    ...socketsImports(),
  };
}
