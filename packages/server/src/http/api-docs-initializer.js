// Starts Swagger UI on the API reference page (GET /api/docs). A file of its own rather than an
// inline script, so the page's Content-Security-Policy can allow scripts from this origin only.
// The page is /api/docs, so "openapi.json" is /api/openapi.json, wherever the app is mounted.
window.ui = window.SwaggerUIBundle({
  url: new URL('openapi.json', document.baseURI).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  // The default sends the document to validator.swagger.io for a badge: nothing leaves the origin.
  validatorUrl: null,
  displayRequestDuration: true,
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
