export { globToRegExp, globBase, hasGlob } from "./glob.js";
