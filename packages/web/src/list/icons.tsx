import type { ReactNode } from 'react';

/**
 * A few line icons drawn inline (no icon font or package: the first load stays small). They are
 * decorative: every control that shows one also has a text name.
 */
function Icon({ size = 18, children }: { size?: number; children: ReactNode }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

type IconProps = { size?: number };

export const HomeIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M3 11l9-8 9 8" />
    <path d="M5 10v10h14V10" />
  </Icon>
);

export const ListIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M9 6h11M9 12h11M9 18h11" />
    <path d="M4 6h.01M4 12h.01M4 18h.01" />
  </Icon>
);

export const BoardIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <rect x="3" y="4" width="5" height="16" rx="1" />
    <rect x="10" y="4" width="5" height="11" rx="1" />
    <rect x="17" y="4" width="4" height="7" rx="1" />
  </Icon>
);

export const PlusIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M12 5v14M5 12h14" />
  </Icon>
);

export const SearchIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <circle cx="11" cy="11" r="7" />
    <path d="M20 20l-3.5-3.5" />
  </Icon>
);

export const FilterIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M4 5h16l-6 7v6l-4 2v-8z" />
  </Icon>
);

export const DownloadIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M12 4v11M7 10l5 5 5-5" />
    <path d="M5 20h14" />
  </Icon>
);

export const ChevronLeftIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M15 6l-6 6 6 6" />
  </Icon>
);

export const ChevronRightIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M9 6l6 6-6 6" />
  </Icon>
);

/** Sort state of a column: both arrows when unsorted, one when sorted. */
export const SortIcon = ({ direction, size = 14 }: IconProps & { direction: 'ascending' | 'descending' | 'none' }) => (
  <Icon size={size}>
    {direction !== 'descending' && <path d="M8 10l4-4 4 4" opacity={direction === 'none' ? 0.45 : 1} />}
    {direction !== 'ascending' && <path d="M8 14l4 4 4-4" opacity={direction === 'none' ? 0.45 : 1} />}
  </Icon>
);

export const SignOutIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M15 4h4v16h-4" />
    <path d="M10 8l-4 4 4 4M6 12h10" />
  </Icon>
);

export const BookIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M4 5a2 2 0 0 1 2-2h14v16H6a2 2 0 0 0-2 2z" />
    <path d="M4 19V5" />
  </Icon>
);

export const TerminalIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M4 17l6-5-6-5" />
    <path d="M12 19h8" />
  </Icon>
);

export const CloseIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M6 6l12 12M18 6L6 18" />
  </Icon>
);

/** A pencil on a page: the Studio, where the spec is edited (dev mode only). */
export const StudioIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <path d="M4 20h4L19 9l-4-4L4 16v4z" />
    <path d="M13 7l4 4" />
  </Icon>
);

/** Two people: the Users screen, where accounts and roles are managed. */
export const PeopleIcon = ({ size }: IconProps) => (
  <Icon size={size}>
    <circle cx="9" cy="8" r="3.5" />
    <path d="M2.5 20c0-3.6 2.9-6.5 6.5-6.5s6.5 2.9 6.5 6.5" />
    <path d="M15.5 4.8a3.5 3.5 0 0 1 0 6.4" />
    <path d="M18 13.9c2 .9 3.5 3.1 3.5 6.1" />
  </Icon>
);
