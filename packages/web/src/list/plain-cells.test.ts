import { Anchor, type AnchorProps, Badge, type BadgeProps, Checkbox, MantineProvider } from '@mantine/core';
import { type ComponentType, createElement as h, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { theme } from '../theme.ts';
import { PlainBadge, PlainCheckbox, SmallLink } from './plain-cells.tsx';

// Badge is polymorphic: createElement wants it as the plain component it is here.
const MantineBadge = Badge as unknown as ComponentType<BadgeProps>;
// Its children come as createElement's third argument, which its props type cannot see.
const PlainLink = SmallLink as unknown as ComponentType<{ href?: string; to?: string; bold?: boolean }>;
const MantineAnchor = Anchor as unknown as ComponentType<AnchorProps & { href: string }>;

/** The first element of the markup whose class names `selector`: its classes and its style's variables. */
function drawn(element: ReactElement, selector: string) {
  const html = renderToStaticMarkup(h(MantineProvider, { theme }, element));
  const tag = new RegExp(`<[a-z]+ [^>]*class="[^"]*\\b${selector}\\b[^"]*"[^>]*>`).exec(html)?.[0] ?? '';
  const classes = new Set((/class="([^"]*)"/.exec(tag)?.[1] ?? '').split(' ').filter((c) => c !== ''));
  const style = /style="([^"]*)"/.exec(tag)?.[1] ?? '';
  const vars = Object.fromEntries(
    style
      .split(';')
      .map((d) => d.split(/:(.*)/s).map((p) => p.trim()))
      .filter(([name]) => name?.startsWith('--')),
  );
  return { classes, vars, html };
}

describe("a list's plain cells draw as Mantine's components do", () => {
  it("give a badge the theme's colours (the AA-darkened light text), size, radius and classes", () => {
    for (const [variant, color] of [
      ['light', 'red'],
      ['light', 'teal'],
      ['outline', 'gray'],
    ] as const) {
      const mantine = drawn(
        h(MantineBadge, { variant, color, radius: 'sm', size: 'sm', style: { textTransform: 'none' } }, 'High'),
        'mantine-Badge-root',
      );
      const plain = drawn(h(PlainBadge, { variant, color, size: 'sm' }, 'High'), 'mantine-Badge-root');
      for (const name of [
        '--badge-bg',
        '--badge-color',
        '--badge-bd',
        '--badge-height',
        '--badge-fz',
        '--badge-radius',
      ]) {
        expect(mantine.vars[name]).toMatch(/\S/);
        expect([variant, color, name, plain.vars[name]]).toEqual([variant, color, name, mantine.vars[name]]);
      }
      if (variant === 'light') expect(plain.vars['--badge-color']).toContain('color-mix');
      expect(plain.classes).toEqual(mantine.classes);
      expect(plain.html).toContain('<span class="m_5add502a mantine-Badge-label">High</span>');
    }
  });

  it('give a row checkbox the same markup, named by its label, checked or not', () => {
    for (const checked of [true, false]) {
      const props = { size: 'xs' as const, checked, onChange: () => undefined };
      const mantine = drawn(h(Checkbox, { ...props, 'aria-label': 'Select Printer jams' }), 'mantine-Checkbox-input');
      const plain = drawn(h(PlainCheckbox, { ...props, label: 'Select Printer jams' }), 'mantine-Checkbox-input');
      expect(plain.classes).toEqual(mantine.classes);
      expect(plain.classes).toContain('mantine-focus-auto');
      expect(plain.html).toContain('aria-label="Select Printer jams"');
      expect(plain.html.includes('checked=""')).toBe(checked);
      // The same structure of classes from the root to the icon.
      const structure = (html: string) => [...html.matchAll(/class="([^"]*)"/g)].map((m) => m[1]);
      expect(structure(plain.html).filter((c) => !c?.includes('labelWrapper'))).toEqual(
        structure(mantine.html)
          .filter((c) => !c?.includes('labelWrapper'))
          // Mantine's own root class (not exported) only sets the variables the plain box sets itself.
          .map((c) => c?.replace(/^m_bf2d988c mantine-Checkbox-root /, '')),
      );
    }
  });

  it("give a link the classes of Mantine's Anchor, its keyboard focus ring included", () => {
    const mantine = drawn(h(MantineAnchor, { href: 'mailto:a@example.test', size: 'sm' }, 'a'), 'mantine-Anchor-root');
    for (const link of [
      h(PlainLink, { href: 'mailto:a@example.test' }, 'a'),
      h(MemoryRouter, null, h(PlainLink, { to: '/tickets/1', bold: true }, 'a')),
    ]) {
      const plain = drawn(link, 'mantine-Anchor-root');
      expect(plain.classes).toContain('mantine-focus-auto');
      expect(plain.classes).toEqual(mantine.classes);
    }
  });
});
