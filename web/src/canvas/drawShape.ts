// Drawing the core's shapes on a canvas 2D context: one shape, and a whole frame from
// the shape rows read in place from wasm memory. The site's renderer (renderer.ts) uses
// these; so does `make bench`, which times them beside the core's own Rust painter.
import type { BackgroundConstants, ShapeKind } from "../core";

/** Fill and outline colours, per palette index. */
export interface Styles {
  readonly fill: readonly string[];
  readonly stroke: readonly string[];
}

/** The palette at the given opacities of fill and outline. */
export function stylesFor(
  palette: readonly string[],
  ink: { readonly fill: number; readonly stroke: number },
): Styles {
  const rgb = palette.map((hex) =>
    [1, 3, 5].map((i) => String(parseInt(hex.slice(i, i + 2), 16))).join(" "),
  );
  return {
    fill: rgb.map((c) => `rgb(${c} / ${String(ink.fill)})`),
    stroke: rgb.map((c) => `rgb(${c} / ${String(ink.stroke)})`),
  };
}

/** One frame's inputs. */
export interface Frame {
  /** The shape rows, in place in wasm memory. */
  readonly rows: Float32Array;
  /** Their layout and the kinds' names. */
  readonly layout: Pick<BackgroundConstants, "stride" | "offsets" | "kinds">;
  readonly styles: Styles;
  /** Device pixels per CSS pixel. */
  readonly ratio: number;
  /** Each shape's last drawn box (x, y, w, h in device pixels): read, then rewritten. */
  readonly drawn: Float32Array;
  /** Clear the whole canvas first (first frame, resize, theme change). */
  readonly clearAll: boolean;
  /** Where shapes are faded: behind the page's text column. None: full strength everywhere. */
  readonly fade?: Fade;
}

/** A vertical band (CSS pixels) where shapes show at `strength`, eased over `edge`. */
export interface Fade {
  readonly left: number;
  readonly right: number;
  readonly edge: number;
  readonly strength: number;
}

/** How strongly a shape centred at `x` shows: 1 beside the band, `strength` inside it. */
export function fadeAt(fade: Fade | undefined, x: number): number {
  if (!fade) return 1;
  const { left, right, edge, strength } = fade;
  // 0 deep inside the band, 1 at or beyond `edge` outside it.
  const out = Math.min(1, Math.max(0, (left - x) / edge + 0.5, (x - right) / edge + 0.5));
  return strength + (1 - strength) * out;
}

/**
 * Draws every shape. Clears only where shapes were and will be: far fewer pixels than
 * the whole canvas, which matters where it is drawn without a GPU. Every shape's area is
 * cleared before all are redrawn, so translucent shapes never build up.
 */
export function drawFrame(ctx: CanvasRenderingContext2D, frame: Frame) {
  const { rows, ratio, drawn, styles } = frame;
  const { stride, offsets, kinds } = frame.layout;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  if (frame.clearAll) {
    ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  } else {
    for (let i = 0; i < drawn.length; i += 4) {
      ctx.clearRect(drawn[i] ?? 0, drawn[i + 1] ?? 0, drawn[i + 2] ?? 0, drawn[i + 3] ?? 0);
    }
  }
  for (let row = 0, i = 0; row < rows.length; row += stride, i += 4) {
    // The rotated shape's reach, plus its stroke and antialiasing.
    const reach = ((rows[row + offsets.size] ?? 0) * 0.71 + 2) * ratio;
    const x = (rows[row + offsets.x] ?? 0) * ratio - reach;
    const y = (rows[row + offsets.y] ?? 0) * ratio - reach;
    ctx.clearRect(x, y, reach * 2, reach * 2);
    drawn[i] = x;
    drawn[i + 1] = y;
    drawn[i + 2] = reach * 2;
    drawn[i + 3] = reach * 2;
  }
  ctx.lineWidth = 1.5;
  for (let row = 0; row < rows.length; row += stride) {
    const kind = kinds[rows[row + offsets.kind] ?? 0] ?? "block";
    const colour = rows[row + offsets.colour] ?? 0;
    ctx.setTransform(
      ratio,
      0,
      0,
      ratio,
      (rows[row + offsets.x] ?? 0) * ratio,
      (rows[row + offsets.y] ?? 0) * ratio,
    );
    ctx.rotate(rows[row + offsets.angle] ?? 0);
    ctx.globalAlpha = fadeAt(frame.fade, rows[row + offsets.x] ?? 0);
    ctx.fillStyle = styles.fill[colour] ?? "transparent";
    ctx.strokeStyle = styles.stroke[colour] ?? "transparent";
    drawShape(ctx, kind, rows[row + offsets.size] ?? 0);
  }
  ctx.globalAlpha = 1;
}

/** Draws one shape centred on the origin, `size` wide, with the context's styles. */
export function drawShape(ctx: CanvasRenderingContext2D, kind: ShapeKind, size: number) {
  const r = size / 2;
  ctx.beginPath();
  switch (kind) {
    case "block":
      ctx.roundRect(-r, -r, size, size, size * 0.18);
      break;
    case "node":
      ctx.arc(0, 0, r, 0, Math.PI * 2);
      break;
    case "triangle":
      polygon(ctx, 3, r);
      break;
    case "hexagon":
      polygon(ctx, 6, r);
      break;
    case "connection": {
      // A link between two nodes: a line with a dot at each end.
      const dot = size * 0.12;
      ctx.moveTo(-r + dot, 0);
      ctx.lineTo(r - dot, 0);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(-r + dot, 0, dot, 0, Math.PI * 2);
      ctx.moveTo(r, 0);
      ctx.arc(r - dot, 0, dot, 0, Math.PI * 2);
      ctx.fill();
      return;
    }
  }
  ctx.fill();
  ctx.stroke();
}

function polygon(ctx: CanvasRenderingContext2D, sides: number, r: number) {
  for (let i = 0; i < sides; i++) {
    const a = (i / sides) * Math.PI * 2 - Math.PI / 2;
    if (i === 0) ctx.moveTo(r * Math.cos(a), r * Math.sin(a));
    else ctx.lineTo(r * Math.cos(a), r * Math.sin(a));
  }
  ctx.closePath();
}
