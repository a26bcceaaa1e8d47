// The package's types under strict settings and TypeScript's default libraries (no
// `lib` option): every entry, the literal unions of `update`, and what must not compile.
import { Background, type FormState, WaitlistForm, isValidEmail, wasmMemory } from "lathe-core";
import * as bundler from "lathe-core/bundler";
import * as node from "lathe-core/node";
import init, { WaitlistForm as WebForm } from "lathe-core/web";
import { type WakeUps, wakeUps } from "lathe-core/wake";

const form = new WaitlistForm();
form.update({ name: "Ada", interest: "developer" });
// @ts-expect-error: an interest that is not one of the five
form.update({ interest: "sales" });
// @ts-expect-error: a field the form does not have
form.update({ phone: "555" });
const state: FormState = form.state();
const wakeAt: number | null = state.wakeAt;
const first = state.errors[0]; // FieldError | undefined under noUncheckedIndexedAccess
const message: string | undefined = first?.message;
const wake: WakeUps = wakeUps(form, () => undefined);
wake.stop();
using disposed = new Background("page", 10, 10, 1); // Symbol.dispose and Disposable, declared by the types
const rows = new Float32Array(wasmMemory().buffer, disposed.shapesPtr(), disposed.count);
declare const canvas: HTMLCanvasElement;
disposed.attach(canvas, 2);
disposed.setInk(0.1, 0.32);
disposed.frame(16);
// @ts-expect-error: a 2D context is not a canvas
disposed.attach(canvas.getContext("2d"), 1);
const valid: boolean = isValidEmail("ada@example.com") && node.isValidEmail("") === false;
const ready: Promise<unknown> = init();
const other: WebForm = WebForm.sending();
const sameShape: typeof bundler.WaitlistForm.prototype.state = form.state;
export { wakeAt, message, rows, valid, ready, other, sameShape };
