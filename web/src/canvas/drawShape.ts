import type { ShapeKind } from "../core";

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
