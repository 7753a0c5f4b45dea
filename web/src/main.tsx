import '@mantine/core/styles.css';
import '@xyflow/react/dist/style.css';
import './app.css';
import { Anchor, MantineProvider, createTheme } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './App';
import { AuthProvider } from './auth';

// Shade 8 in light mode: indigo's default shade 6 misses the 4.5:1 contrast ratio for text and buttons (axe-core).
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: 'md',
  // Links inside text are underlined, so they are told apart without colour (axe: link-in-text-block).
  components: { Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }) },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <BrowserRouter>
        <AuthProvider>
          <App />
        </AuthProvider>
      </BrowserRouter>
    </MantineProvider>
  </StrictMode>,
);
