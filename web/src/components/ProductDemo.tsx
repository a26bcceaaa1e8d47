import { useRef } from "react";
import { demo } from "../content/demo";
import { highlight } from "../demo/highlight";
import { codeBeat, stepBeat } from "../demo/timeline";
import { useInView } from "../hooks/useInView";
import { useMotion } from "../hooks/motion";

/**
 * A Lathe window playing one conversation (content/demo.ts): the prompt is typed and
 * sent, the reply lists its steps while the code appears, then the app runs in the
 * preview. CSS plays it (each `data-beat` gets its start from demo/timeline.ts) from the
 * first paint; it pauses off screen or with the page's pause control, and reduced motion
 * shows the last frame. The window is decoration for assistive technology: the caption
 * says what it shows.
 */
export function ProductDemo() {
  const figure = useRef<HTMLElement>(null);
  const inView = useInView(figure);
  const { paused } = useMotion();

  return (
    <figure ref={figure} className="demo" data-paused={paused || !inView ? "" : undefined}>
      <div className="demo-window" aria-hidden="true">
        <div className="demo-titlebar">
          <span className="demo-lights">
            <i />
            <i />
            <i />
          </span>
          <span className="demo-title">{demo.windowTitle}</span>
        </div>
        <div className="demo-body">
          <div className="demo-chat">
            <div className="demo-pane-head">
              <span>{demo.chatTitle}</span>
              <span className="demo-model">{demo.model}</span>
            </div>
            <div className="demo-messages">
              <p className="demo-bubble demo-user" data-beat="sent">
                {demo.prompt.text}
              </p>
              <div className="demo-bubble demo-assistant" data-beat="reply">
                <p>{demo.reply.text}</p>
                <ul className="demo-steps ticks">
                  {demo.steps.map((step, i) => (
                    <li key={step.text} data-beat={stepBeat(i)}>
                      {step.text}
                    </li>
                  ))}
                </ul>
              </div>
            </div>
            <div className="demo-input" data-beat="typing">
              <span className="demo-placeholder">{demo.inputPlaceholder}</span>
              <span className="demo-typed">{demo.prompt.text}</span>
              <span className="demo-send" />
            </div>
          </div>
          <div className="demo-app">
            <div className="demo-tabs">
              <span className="demo-tab-indicator" data-beat="preview" />
              <span className="demo-tab">{demo.tabs.code}</span>
              <span className="demo-tab">{demo.tabs.preview}</span>
            </div>
            <div className="demo-stage">
              <div className="demo-code" data-beat="preview">
                {/* The file opens with its first line (styles/demo.css). */}
                <span className="demo-file" data-beat={codeBeat(0)}>
                  {demo.file}
                </span>
                <code>
                  {demo.code.lines.map((line, i) => (
                    <span key={i} className="demo-line" data-beat={codeBeat(i)}>
                      {highlight(line).map((token, j) => (
                        <span key={j} className={`demo-${token.kind}`}>
                          {token.text}
                        </span>
                      ))}
                    </span>
                  ))}
                </code>
              </div>
              <div className="demo-preview" data-beat="preview">
                <span className="demo-address">{demo.address}</span>
                <div className="demo-site">
                  <div className="demo-site-head">
                    <b>{demo.preview.brand}</b>
                    <span>{demo.preview.user}</span>
                  </div>
                  <b className="demo-site-heading">{demo.preview.heading}</b>
                  <span className="demo-days">
                    {demo.preview.days.map((day, i) => (
                      <span key={day} className={i === 0 ? "demo-day demo-day-on" : "demo-day"}>
                        {day}
                      </span>
                    ))}
                  </span>
                  <span className="demo-classes">
                    {demo.preview.classes.map((item) => (
                      <span key={item.time} className="demo-class">
                        <span className="demo-time">{item.time}</span>
                        <span className="demo-class-name">
                          {item.name}
                          <small>{item.places}</small>
                        </span>
                        <span className={item.full ? "demo-book demo-book-full" : "demo-book"}>
                          {demo.preview.book}
                        </span>
                      </span>
                    ))}
                  </span>
                  <span className="demo-toast" data-beat="done">
                    {demo.done.text}
                  </span>
                </div>
              </div>
            </div>
          </div>
        </div>
      </div>
      <figcaption className="demo-caption">{demo.caption}</figcaption>
    </figure>
  );
}
