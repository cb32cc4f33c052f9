/** What the package offers to webhook receivers. */
export {
  SIGNATURE_TOLERANCE_SEC,
  signatureHeader,
  type VerifyFailure,
  type VerifyOptions,
  verifyWebhook,
  type WebhookVerification,
} from './domain/signature.ts';
