/** The effectful side of BFCL's data: reading the folder. (Running entries: src/benchmark-runner/.) */
export { loadBfclData, type BfclDataset } from "./load.js";
