export { validate, parseYaml, loadYamlFile, readTextFile, issueToError, schemaAt, coerceText } from "./validate.js";
