/** A call into the core that failed: a programmer error, never a visitor's. */
export class CoreError extends Error {
  override readonly name = "CoreError";
}
