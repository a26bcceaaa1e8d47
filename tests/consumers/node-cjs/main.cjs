// Node, CommonJS: require() of the default entry, the Node build and the helper.
const core = require("lathe-core");
const node = require("lathe-core/node");
const { wakeUps } = require("lathe-core/wake");

const run = async () => {
  const { scenario } = await import("../scenario.js");
  if (typeof wakeUps !== "function") throw new Error("no wakeUps");
  console.log([scenario(core), scenario(node)].join(" | "));
};
run();
