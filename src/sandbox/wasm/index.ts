// Public names of the core-module tools: classification and limit instrumentation.
export { classifyWasm, listCoreImports, type CoreImport, type WasmKind } from './classify.ts';
export { FUEL_IMPORT, OOM_IMPORT, instrumentModule, type InstrumentOptions } from './instrument.ts';
