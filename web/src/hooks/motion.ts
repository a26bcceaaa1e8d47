import { createContext, useContext } from "react";

/** Whether the visitor has paused the page's animations (the background and the demo). */
export interface Motion {
  readonly paused: boolean;
  readonly setPaused: (paused: boolean) => void;
}

export const MotionContext = createContext<Motion>({ paused: false, setPaused: () => undefined });

/** The page's one pause state, owned by Layout; its control is AnimatedBackground's. */
export function useMotion(): Motion {
  return useContext(MotionContext);
}
