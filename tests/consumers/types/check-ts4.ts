// The package's types under TypeScript 4.9 (before `Symbol.dispose` was in its
// libraries), strict: every entry such a project can resolve, without `using`.
import { Background, type FormState, WaitlistForm, isValidEmail } from "lathe-core";
import init from "lathe-core/web";
import { type WakeUps, wakeUps } from "lathe-core/wake";

const form = new WaitlistForm();
form.update({ name: "Ada", interest: "developer" });
// @ts-expect-error: an interest that is not one of the five
form.update({ interest: "sales" });
const state: FormState = form.state();
const wakeAt: number | null = state.wakeAt;
const wake: WakeUps = wakeUps(form, () => undefined);
wake.stop();
const background = new Background("page", 10, 10, 1);
background[Symbol.dispose]();
const valid: boolean = isValidEmail("ada@example.com");
const ready: Promise<unknown> = init();
export { ready, valid, wakeAt };
