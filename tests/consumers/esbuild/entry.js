import * as core from "lathe-core";
import { scenario } from "../scenario.js";

document.body.dataset.result = scenario(core);
