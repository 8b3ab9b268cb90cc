export { validate, parseYaml, loadYamlFile, readTextFile, issueToError, schemaAt, coerceText } from "./validate.js";
export { nearest, editDistance } from "./nearest.js";
