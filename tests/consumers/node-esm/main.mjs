// Node, ES modules: the default entry, the Node build and the wake-up helper.
import * as core from "lathe-core";
import * as node from "lathe-core/node";
import { wakeUps } from "lathe-core/wake";
import constants from "lathe-core/constants.json" with { type: "json" };
import { scenario } from "../scenario.js";

const form = new core.WaitlistForm();
form.update({ name: "Ada", email: "ada@example.com", message: "Hi" });
const phases = [];
const wake = wakeUps(form, () => phases.push(form.state().phase), { maxSleepMs: 50 });
form.submit(performance.now());
wake.rearm();
await new Promise((resolve) => setTimeout(resolve, constants.form.submitDelayMs + 200));
wake.stop();
if (phases.join() !== "submitted") throw new Error(`woken: ${phases.join()}`);
console.log([scenario(core), scenario(node), phases[0]].join(" | "));
