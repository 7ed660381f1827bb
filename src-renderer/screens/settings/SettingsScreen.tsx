import { AuditSection } from './AuditSection';
import { CredentialsSection } from './CredentialsSection';
import { HistorySection } from './HistorySection';
import { PrivacySection } from './PrivacySection';
import { ProfilesSection } from './ProfilesSection';
import { PricesSection } from './PricesSection';

export function SettingsScreen() {
  return (
    <div className="page" data-testid="settings-page">
      <header className="page__head">
        <h1 className="page__title">Settings</h1>
        <p className="page__subtitle">Credentials stay in the host’s keychain; privacy decides where a run’s data may go; profiles hold the settings your workflows pick from; history says what this browser keeps of the host's runs; the audit log shows every change to what runs may use.</p>
      </header>
      <div className="settings">
        <CredentialsSection />
        <PrivacySection />
        <ProfilesSection />
        <PricesSection />
        <HistorySection />
        <AuditSection />
      </div>
    </div>
  );
}
