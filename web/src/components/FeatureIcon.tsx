import BrainCircuit from "~icons/lucide/brain-circuit";
import CodeXml from "~icons/lucide/code-xml";
import KeyRound from "~icons/lucide/key-round";
import Layers from "~icons/lucide/layers";
import MonitorSmartphone from "~icons/lucide/monitor-smartphone";
import WandSparkles from "~icons/lucide/wand-sparkles";
import type { FeatureIconName } from "../content/site";

const icons = {
  "wand-sparkles": WandSparkles,
  "key-round": KeyRound,
  "brain-circuit": BrainCircuit,
  layers: Layers,
  "code-xml": CodeXml,
  "monitor-smartphone": MonitorSmartphone,
} satisfies Record<FeatureIconName, unknown>;

/** A feature card's icon: decoration, the card's heading says what it is. */
export function FeatureIcon({ name }: { readonly name: FeatureIconName }) {
  const Icon = icons[name];
  return (
    <span className="feature-icon">
      <Icon aria-hidden="true" focusable="false" width="22" height="22" />
    </span>
  );
}
