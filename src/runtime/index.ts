export { importNative } from "./native-import.js";
