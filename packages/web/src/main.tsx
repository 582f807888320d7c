import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client.ts';
import { App } from './app/App.tsx';
import { DevLoop } from './studio/DevLoop.tsx';
import { theme } from './theme.ts';

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal will not change by asking again; a dropped connection may.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      staleTime: 10_000,
    },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element.');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <QueryClientProvider client={queries}>
        <App />
        <DevLoop />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
