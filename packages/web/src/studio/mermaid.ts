import type { Mermaid } from 'mermaid';

/**
 * Mermaid, loaded the first time a diagram is drawn (it is larger than the rest of the app), and
 * set up once: nothing drawn on load, and strict security (no HTML or script in labels: the text
 * comes from the spec being edited).
 */
let loading: Promise<Mermaid> | null = null;

function loadMermaid(): Promise<Mermaid> {
  loading ??= import('mermaid').then(({ default: mermaid }) => {
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      theme: 'neutral',
      fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif',
      // A diagram that fails is reported by the Studio, not drawn as Mermaid's bomb icon.
      suppressErrorRendering: true,
    });
    return mermaid;
  });
  return loading;
}

const drawn = new Map<string, string>();
let queue: Promise<unknown> = Promise.resolve();
let counter = 0;

/**
 * The SVG of a diagram's Mermaid text. Renders run one at a time (Mermaid keeps global state
 * while it draws), and each text is drawn once: typing elsewhere in the spec redraws nothing.
 */
export function drawDiagram(text: string): Promise<string> {
  const known = drawn.get(text);
  if (known !== undefined) return Promise.resolve(known);
  const next = queue.then(async () => {
    const mermaid = await loadMermaid();
    const { svg } = await mermaid.render(`studio-diagram-${++counter}`, text);
    // A bounded cache: a long session types thousands of intermediate texts.
    if (drawn.size > 50) drawn.clear();
    drawn.set(text, svg);
    return svg;
  });
  queue = next.catch(() => undefined);
  return next;
}
