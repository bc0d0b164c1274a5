import { buildOpenApiDocument } from './src/http/api/openapi.js';
import { REST_ROUTES } from './src/http/api/routes.js';
console.log(JSON.stringify(buildOpenApiDocument(REST_ROUTES, 'http://x'), null, 1));
