import { benchSignUps } from "./signups.mjs";
const waitFor = async (url) => { for (;;) { try { await fetch(url); return; } catch { await new Promise((r) => setTimeout(r, 100)); } } };
const r = await benchSignUps({ root: "/work/main", dist: "/work/main/web/dist", waitFor });
console.log(r.lines.map((l) => `${l.backend} ${l.proof} ${l.connections} ${l.rps} refused ${l.refused}`).join("\n"));
