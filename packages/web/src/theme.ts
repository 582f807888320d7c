import { createTheme, DEFAULT_THEME, defaultVariantColorsResolver, type MantineColorsTuple } from '@mantine/core';

/**
 * Mantine's gray with a darker shade 6: that shade is the "dimmed" text colour, and Mantine's own
 * (#868e96, 3.3:1 on white) is too faint for WCAG AA; this one reads at 5.3:1.
 */
const gray = DEFAULT_THEME.colors.gray.map((shade, i) =>
  i === 6 ? '#656c73' : shade,
) as unknown as MantineColorsTuple;

/**
 * Mantine's red with shade 9 as shade 6: shade 6 is the error colour (a field's message, an invalid
 * input's text), and Mantine's own (#fa5252, 3.3:1 on white) is too faint for WCAG AA; #c92a2a reads at 5.5:1.
 */
const red = DEFAULT_THEME.colors.red.map((shade, i) => (i === 6 ? '#c92a2a' : shade)) as unknown as MantineColorsTuple;

/** One theme for the app: Mantine's defaults with a calm primary colour and readable type. */
export const theme = createTheme({
  primaryColor: 'indigo',
  // Shade 8 of indigo: white text on filled buttons reads at 5.7:1 (shade 6 falls short of AA's 4.5:1).
  primaryShade: { light: 8, dark: 8 },
  colors: { gray, red },
  // Mantine's light variant (state badges, the active navigation link) writes shade 9 on shade 1, or 2 on
  // hover: under AA's 4.5:1 for teal, green, lime, yellow, orange and red. 35% darker, every colour reads at 5:1 or more.
  variantColorResolver: (input) => {
    const colors = defaultVariantColorsResolver(input);
    return input.variant === 'light' ? { ...colors, color: `color-mix(in srgb, ${colors.color} 65%, black)` } : colors;
  },
  components: {
    // A dialog's close button is an icon: without a name, screen readers announce "button".
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    // Mantine writes a dialog's header as <header>, which axe takes for a second banner landmark
    // beside the page's own; a div keeps the look and leaves the dialog its role and name.
    ModalHeader: { defaultProps: { component: 'div' } },
    // The same for a drawer (a Users screen's history).
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    DrawerHeader: { defaultProps: { component: 'div' } },
    // The navigation's links take the light variant through the resolver above (by default they skip it).
    NavLink: { defaultProps: { variant: 'light' } },
    // A badge is a state or a value: shown whole ("Assigned", never "Assi…"). Mantine lets a badge
    // shrink below its text, which a table's column then does; what holds it wraps it instead.
    Badge: { styles: { root: { minWidth: 'max-content' } } },
    // A menu holds menu items only: Mantine's focus placeholder (a focusable role=presentation div) breaks that.
    Menu: { defaultProps: { withInitialFocusPlaceholder: false } },
  },
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
});
