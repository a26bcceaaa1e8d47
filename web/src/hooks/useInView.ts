import { type RefObject, useEffect, useState } from "react";

/** Whether an element is on screen; true until known, and where it cannot be known. */
export function useInView(element: RefObject<Element | null>): boolean {
  const [inView, setInView] = useState(true);
  useEffect(() => {
    const target = element.current;
    if (!target || !("IntersectionObserver" in window)) return;
    const observer = new IntersectionObserver(([entry]) => {
      setInView(entry?.isIntersecting ?? true);
    });
    observer.observe(target);
    return () => {
      observer.disconnect();
    };
  }, [element]);
  return inView;
}
