// Public names of the core-module tools: classification, limit instrumentation, memory images.
export { classifyWasm, listCoreImports, type CoreImport, type WasmKind } from './classify.ts';
export { listComponentImports } from './component-imports.ts';
export {
  FUEL_IMPORT, OOM_IMPORT, TABLES_IMPORT, TABLES_SECTION, instrumentModule, tableElementBudget, type InstrumentOptions,
} from './instrument.ts';
export { MEMORY_IMPORT, decodeImage, encodeImage, externalizeMemory, type MemoryImage } from './memory-image.ts';
