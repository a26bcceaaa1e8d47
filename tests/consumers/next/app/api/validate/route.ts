// A route handler: the package on the server, validating a sign-up with the core's rules.
import { WaitlistForm } from "lathe-core";

export async function POST(request: Request) {
  const values = (await request.json()) as Record<string, string>;
  const form = WaitlistForm.sending();
  form.update(values);
  const outcome = form.submit(0);
  const { errors } = form.state();
  form.free();
  return Response.json({ outcome, errors }, { status: outcome === "started" ? 200 : 422 });
}
