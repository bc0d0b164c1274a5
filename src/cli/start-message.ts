/**
 * What `postdeck serve` tells the person who started it: the address to open (PUBLIC_URL, whose
 * host the cookies belong to, not the socket's) and the next step, which on a fresh install is to
 * sign up, since the first person to sign up owns the install. `command` is how this install runs
 * the CLI (POSTDECK_COMMAND: `node bin/postdeck.js` in a checkout, `docker compose exec api postdeck` in Docker).
 */
export function startMessage(input: {
  publicUrl: string;
  listeningOn: string;
  freshInstall: boolean;
  command: string;
}): string {
  const { publicUrl, listeningOn, freshInstall, command } = input;
  const bound = listeningOn === publicUrl ? '' : ` (listening on ${listeningOn})`;
  const next = freshInstall
    ? `Next: open ${publicUrl}/signup (the first person to sign up owns this install),\n` +
      `then get an API key with:  ${command} login`
    : `Get an API key with:  ${command} login   (scripts: ${command} admin bootstrap --json)`;
  return `\nPostdeck is running at ${publicUrl}${bound}\nAPI reference: ${publicUrl}/public/v1/docs\n${next}\n\n`;
}
