export { validate, parseYaml, loadYamlFile, readTextFile, issueToError } from "./validate.js";
export { nearest, editDistance } from "./nearest.js";
