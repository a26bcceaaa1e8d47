import { useEffect, useRef } from "react";
import { formText } from "../content/form";

/** Shown for the core's thank-you time after a submit; takes focus so none is lost. */
export function ThankYouPanel() {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <div className="thank-you">
      <h3 ref={heading} tabIndex={-1}>
        {formText.thankYouHeading}
      </h3>
      <p>{formText.thankYouBody}</p>
    </div>
  );
}
