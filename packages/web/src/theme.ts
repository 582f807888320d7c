import { createTheme } from '@mantine/core';

/** One theme for the app: Mantine's defaults with a calm primary colour and readable type. */
export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
});
