/** What keeps a --mock run in its box: the scope that says whose code is running, and the one layer that owns the process's network. */
export { suiteScope, caseScope, currentScope, runInScope, suiteOf, type Scope, type SuiteScope, type CaseScope } from "./scope.js";
export { NetworkGuard } from "./network-guard.js";
export { addHttpHandler, addUnhandledPolicy, type HttpHandler, type HttpControl, type UnhandledPolicy } from "./interception.js";
