/** GET /api/privacy (public): the configured details the /privacy page shows (null: not configured). */
export interface PrivacyInfo {
  /** PRIVACY_OPERATOR_NAME: the operator, a sole proprietor ('ИП Иванов Иван Иванович'). */
  operator_name: string | null;
  /** PRIVACY_OPERATOR_EMAIL: where requests and revocations of consent go. */
  operator_email: string | null;
  /** PRIVACY_POLICY_URL: where the policy is published (null: the page's own address). */
  policy_url: string | null;
}
