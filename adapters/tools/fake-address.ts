// A fake identity for a country: name, single-line postal address, international phone, currency code.
// The country never comes from faker's random location.country(): it is the caller's, named as ICU names it.
import countryToCurrency from 'country-to-currency';
import { getExampleNumber, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { invalidParam, regionName, reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { fakerFor } from './_locales.js';

const currencies = countryToCurrency as Record<string, string>;

function phoneFor(country: string, faker: Awaited<ReturnType<typeof fakerFor>>): string {
  const candidate = parsePhoneNumberFromString(faker.phone.number({ style: 'international' }), country as CountryCode);
  if (candidate?.isValid() && candidate.country === country) return candidate.formatInternational();
  // The locale's pattern is not valid for this country: vary the tail of the country's example number.
  const example = getExampleNumber(country as CountryCode, examples);
  if (!example) return faker.phone.number({ style: 'international' });
  const national = example.nationalNumber;
  for (let i = 0; i < 20; i++) {
    const tail = faker.string.numeric(Math.min(4, national.length - 1));
    const n = parsePhoneNumberFromString(`+${example.countryCallingCode}${national.slice(0, -tail.length)}${tail}`);
    if (n?.isValid()) return n.formatInternational();
  }
  return example.formatInternational();
}

const fakeAddress: Adapter<'tools/fake-address'> = async (params) => {
  let country = (params.country ?? 'US').toUpperCase();
  if (country === 'UK') country = 'GB';
  if (!currencies[country]) throw invalidParam('country', `unknown country code ${country}`);
  const faker = await fakerFor(country);
  const countryName = regionName(country) ?? country;
  const loc = faker.location;
  const state = (() => {
    try {
      return loc.state({ abbreviated: true });
    } catch {
      return '';
    }
  })();
  const cityLine = [loc.city(), [state, loc.zipCode()].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  const data = {
    name: faker.person.fullName(),
    address: `${loc.streetAddress()}, ${cityLine}, ${countryName}`,
    phone: phoneFor(country, faker),
    currency: currencies[country],
    country: { code: country, name: countryName },
    test_data: true,
  };
  return reply({ data, cacheable: false });
};

export default fakeAddress;
