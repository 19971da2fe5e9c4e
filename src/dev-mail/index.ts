// The development mail viewer: at /dev/mail, the e-mails payreq sent (or logged for want of
// SMTP_URL), as the guest and the hotel read them. Registered only when NODE_ENV=development.
export { devMailRoutes } from './dev-mail-routes.ts';
