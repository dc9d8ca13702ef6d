// Starts Swagger UI on /docs. Served from our own origin as a file (not an inline script) so the
// page can run under `script-src 'self'`.
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default validator badge fetches validator.swagger.io; nothing on this page may call out.
    validatorUrl: null,
    // Ignore ?url= and ?configUrl=, so a crafted link cannot make this page render another spec.
    queryConfigEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    // BaseLayout has no top bar, hence no "Explore" box pointing at the public petstore demo.
    layout: 'BaseLayout',
    tryItOutEnabled: false,
    withCredentials: false,
    persistAuthorization: false,
    displayRequestDuration: true,
  });
});
