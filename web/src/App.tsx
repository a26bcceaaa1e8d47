import { WaitlistForm } from "./components/WaitlistForm";
import { useCore } from "./hooks/useCore";

export function App() {
  const status = useCore();
  return (
    <main id="main">
      <h1>Join the Lathe waitlist</h1>
      <WaitlistForm
        core={status.state === "ready" ? status.core : null}
        unavailable={status.state === "failed"}
      />
    </main>
  );
}
