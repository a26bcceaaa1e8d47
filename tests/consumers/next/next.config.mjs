// Not the package's configuration: where this fixture's shared node_modules and
// scenario.js live (one folder up), for Turbopack and for file tracing.
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export default { turbopack: { root }, outputFileTracingRoot: root };
