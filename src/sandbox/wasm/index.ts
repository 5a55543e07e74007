// Public names of the core-module tools: classification, limit instrumentation, memory images.
export { patchPreview1Adapter } from './adapter-patch.ts';
export { translateAdapterPointers } from './adapter-pointers.ts';
export { type CoreImport, classifyWasm, listCoreImports, type WasmKind } from './classify.ts';
export { listComponentImports } from './component-imports.ts';
export {
  FUEL_IMPORT,
  INVALID_OUTPUT,
  type InstrumentOptions,
  instrumentModule,
  OOM_IMPORT,
  TABLES_IMPORT,
  TABLES_SECTION,
  tableElementBudget,
} from './instrument.ts';
export {
  restoreStubbedModules,
  STUB_MIN_BYTES,
  type StubbedComponent,
  stubLargeCoreModules,
} from './interface-stub.ts';
export { decodeImage, encodeImage, externalizeMemory, MEMORY_IMPORT, type MemoryImage } from './memory-image.ts';
export { SHIFT_BYTES, SHIFT_PAGES, type ShiftResult, shiftMemory } from './memory-shift.ts';
