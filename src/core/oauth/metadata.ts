/** Where Postdeck's OAuth endpoints live, under its public URL. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
} as const;

/** RFC 8414 authorization server metadata; Postdeck is its own authorization server. */
export function authorizationServerMetadata(publicUrl: string): Record<string, unknown> {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.register}`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${publicUrl}/public/v1/docs`,
  };
}

/** RFC 9728 protected resource metadata for a resource (the MCP endpoint's URL). */
export function protectedResourceMetadata(publicUrl: string, resource: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [publicUrl],
    bearer_methods_supported: ['header'],
    resource_name: 'Postdeck',
    resource_documentation: `${publicUrl}/public/v1/docs`,
  };
}
