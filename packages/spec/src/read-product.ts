import type { Product, Span } from './model.ts';
import type { Section } from './parse-sections.ts';

const AUDIENCE = /^(for whom|audience|users|who)\b/i;

/** Point 1 and the title: the product's name, summary (first paragraph) and audience. */
export function readProduct(title: { text: string; span: Span } | null, section: Section | undefined): Product {
  const name = title
    ? title.text.replace(/^specification\s*[:\-–—]\s*/i, '').trim() || 'Untitled product'
    : 'Untitled product';
  const product: Product = { name, summary: '', audience: '', description: '', span: title?.span ?? null };
  if (!section?.shown) return product;
  const paragraphs = section.prose.split(/\n{2,}/).filter((p) => p.trim() !== '');
  const audience = section.subsections.find((s) => AUDIENCE.test(s.name));
  product.summary = paragraphs[0]?.trim() ?? '';
  product.audience = audience ? audience.prose : paragraphs.slice(1).join('\n\n');
  product.description = [section.prose, ...section.subsections.map((s) => `### ${s.name}\n\n${s.prose}`)]
    .join('\n\n')
    .trim();
  return product;
}
