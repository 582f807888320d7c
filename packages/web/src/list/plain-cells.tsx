import {
  Anchor,
  Badge,
  Checkbox,
  type MantineTheme,
  Table,
  Text,
  useMantineTheme,
  VisuallyHidden,
} from '@mantine/core';
import type { ChangeEvent, CSSProperties, ReactNode } from 'react';
import { Link } from 'react-router';

/*
 * A list's rows drawn with Mantine's own classes and variables on plain elements. A page of 50
 * rows holds several hundred cells; as Mantine components each one costs its props, style and
 * theme hooks on every first drawing, which made most of a list's main-thread time. These draw the
 * same (the same class names, the theme's Badge override, the same CSS variables), with none of it.
 */

/** A table row and cell as Mantine's `Table.Tr` (row border, hover) and `Table.Td` draw them. */
export const ROW_CLASS = `${Table.classes.tr} mantine-Table-tr`;
export const CELL_CLASS = `${Table.classes.td} mantine-Table-td`;

const TEXT_CLASS = `${Text.classes.root} mantine-Text-root`;
// `mantine-focus-auto`: the theme's focus ring for the keyboard, as Mantine's Anchor has (WCAG 2.4.7).
const ANCHOR_CLASS = `mantine-focus-auto ${Text.classes.root} ${Anchor.classes.root} mantine-Text-root mantine-Anchor-root`;
const SMALL = { '--text-fz': 'var(--mantine-font-size-sm)', '--text-lh': 'var(--mantine-line-height-sm)' };

/** `<Text span size="sm">`. */
export function SmallText({
  children,
  title,
  dimmed,
  style,
}: {
  children: ReactNode;
  title?: string | undefined;
  dimmed?: boolean;
  style?: CSSProperties;
}) {
  return (
    <span
      className={TEXT_CLASS}
      data-size="sm"
      title={title}
      style={{ ...SMALL, ...(dimmed ? { color: 'var(--mantine-color-dimmed)' } : {}), ...style } as CSSProperties}
    >
      {children}
    </span>
  );
}

const HIDDEN_CLASS = `${VisuallyHidden.classes.root} mantine-VisuallyHidden-root`;

/** An empty value: a dash to the eye, "empty" to a screen reader. */
export function EmptyValue({ dash }: { dash: string }) {
  return (
    <SmallText dimmed>
      <span aria-hidden="true">{dash}</span>
      <span className={HIDDEN_CLASS}>empty</span>
    </SmallText>
  );
}

/** `<Anchor size="sm">`, underlined on hover: a route of the app (`to`) or an address (`href`). */
export function SmallLink({
  children,
  to,
  href,
  bold,
  external,
}: {
  children: ReactNode;
  to?: string;
  href?: string;
  bold?: boolean;
  external?: boolean;
}) {
  const props = {
    className: ANCHOR_CLASS,
    'data-size': 'sm',
    'data-underline': 'hover',
    style: { ...SMALL, ...(bold ? { fontWeight: 600 } : {}) } as CSSProperties,
  };
  if (to !== undefined)
    return (
      <Link to={to} {...props}>
        {children}
      </Link>
    );
  return (
    <a href={href} {...props} {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
      {children}
    </a>
  );
}

type BadgeVariant = 'light' | 'outline';
const BADGE_CLASS = `${Badge.classes.root} mantine-Badge-root`;
const BADGE_LABEL_CLASS = `${Badge.classes.label} mantine-Badge-label`;
/** A theme's badge colours by variant and colour, resolved once: the resolver is the theme's (AA text). */
const resolved = new WeakMap<MantineTheme, Map<string, CSSProperties>>();

function badgeColours(theme: MantineTheme, variant: BadgeVariant, color: string): CSSProperties {
  const byKey = resolved.get(theme) ?? new Map<string, CSSProperties>();
  resolved.set(theme, byKey);
  const key = `${variant}:${color}`;
  let vars = byKey.get(key);
  if (!vars) {
    const colors = theme.variantColorResolver({ color, theme, variant });
    vars = {
      '--badge-bg': colors.background,
      '--badge-color': colors.color,
      '--badge-bd': colors.border,
    } as CSSProperties;
    byKey.set(key, vars);
  }
  return vars;
}

/** `<Badge variant radius="sm" size tt="none">` with the theme's Badge override (shown whole). */
export function PlainBadge({
  variant,
  color,
  size = 'md',
  children,
  choiceColour,
}: {
  variant: BadgeVariant;
  color: string;
  size?: 'sm' | 'md';
  children?: ReactNode;
  choiceColour?: string | undefined;
}) {
  const theme = useMantineTheme();
  const style = {
    ...badgeColours(theme, variant, color),
    '--badge-height': `var(--badge-height-${size})`,
    '--badge-padding-x': `var(--badge-padding-x-${size})`,
    '--badge-fz': `var(--badge-fz-${size})`,
    '--badge-radius': 'var(--mantine-radius-sm)',
    textTransform: 'none',
    minWidth: 'max-content',
  } as CSSProperties;
  return (
    <div
      className={BADGE_CLASS}
      data-variant={variant}
      data-size={size}
      data-choice-colour={choiceColour}
      style={style}
    >
      <span className={BADGE_LABEL_CLASS}>{children}</span>
    </div>
  );
}

const CHECKBOX = {
  root: `${Checkbox.classes.root} mantine-Checkbox-root`,
  body: `${Checkbox.classes.body} mantine-Checkbox-body`,
  inner: `${Checkbox.classes.inner} mantine-Checkbox-inner`,
  input: `mantine-focus-auto ${Checkbox.classes.input} mantine-Checkbox-input`,
  icon: `${Checkbox.classes.icon} mantine-Checkbox-icon`,
};

/** `<Checkbox size aria-label checked onChange>` without a label: a row's box for bulk actions. */
export function PlainCheckbox({
  size,
  label,
  checked,
  onChange,
}: {
  size: 'xs' | 'sm';
  label: string;
  checked: boolean;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
}) {
  // Mantine's Checkbox sets these from its own (unexported) root class; the sizes are its xs and sm.
  const style = {
    '--checkbox-size': `calc(${size === 'xs' ? 1 : 1.25}rem * var(--mantine-scale))`,
    '--checkbox-radius': 'var(--mantine-radius-sm)',
    '--checkbox-color': 'var(--mantine-primary-color-filled)',
    '--checkbox-icon-color': 'var(--mantine-color-white)',
  } as CSSProperties;
  return (
    <div
      className={CHECKBOX.root}
      style={style}
      data-variant="filled"
      data-size={size}
      data-label-position="right"
      data-checked={checked || undefined}
    >
      <div className={CHECKBOX.body}>
        <div className={CHECKBOX.inner} data-label-position="right">
          <input
            className={CHECKBOX.input}
            data-with-error-styles="true"
            type="checkbox"
            aria-label={label}
            checked={checked}
            onChange={onChange}
          />
          <svg
            viewBox="0 0 10 7"
            fill="none"
            xmlns="http://www.w3.org/2000/svg"
            aria-hidden="true"
            className={CHECKBOX.icon}
          >
            <path
              d="M4 4.586L1.707 2.293A1 1 0 1 0 .293 3.707l3 3a.997.997 0 0 0 1.414 0l5-5A1 1 0 1 0 8.293.293L4 4.586z"
              fill="currentColor"
              fillRule="evenodd"
              clipRule="evenodd"
            />
          </svg>
        </div>
      </div>
    </div>
  );
}
