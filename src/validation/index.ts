export { MAX_YAML_ALIASES, validate, parseYaml, loadYamlFile, readTextFile, issueToError, schemaAt, coerceText } from "./validate.js";
