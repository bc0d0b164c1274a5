import { auditOperations } from '../audit/operations.js';
import { creditOperations } from '../credits/operations.js';
import { insightOperations } from '../insights/operations.js';
import { mediaFolderOperations } from '../media/folder-operations.js';
import { mediaOperations } from '../media/operations.js';
import { platformOperations } from '../platforms/operations.js';
import { postOperations } from '../posts/operations.js';
import { slideOperations } from '../slides/operations.js';
import { webhookOperations } from '../webhooks/operations.js';
import type { AnyOperation } from './operation.js';

/** Every operation Postdeck offers, once; each surface (REST, MCP, bots) binds to this list. */
export const OPERATIONS: readonly AnyOperation[] = [
  ...platformOperations,
  ...mediaFolderOperations,
  ...mediaOperations,
  ...postOperations,
  ...slideOperations,
  ...creditOperations,
  ...insightOperations,
  ...webhookOperations,
  ...auditOperations,
];
