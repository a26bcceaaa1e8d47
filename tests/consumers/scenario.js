// What every consumer does with the package: a form driven to "submitted" and a
// background stepped. Returns "submitted 25", or throws.
export function scenario({ WaitlistForm, Background }) {
  const form = new WaitlistForm();
  form.update({ name: "Ada Lovelace", email: "ada@example.com", message: "Hi" });
  const outcome = form.submit(0);
  if (outcome !== "started") throw new Error(`submit: ${outcome}`);
  form.tick(2000);
  const { phase } = form.state();
  form.free();
  const background = new Background("landing", 800, 600, 7);
  const before = background.shapesPtr();
  background.step(16);
  if (background.shapesPtr() !== before) throw new Error("the shapes moved in memory");
  const count = background.count;
  background.free();
  return `${phase} ${String(count)}`;
}
