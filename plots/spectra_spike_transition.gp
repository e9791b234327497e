# BBP transition: top sample eigenvalue and eigenvector overlap vs the spike ell, Monte-Carlo vs limits.
# Usage: gnuplot -e "csv='results/spectra_spike_transition.csv'; png='results/spectra_spike_transition.png'" plots/spectra_spike_transition.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/spectra_spike_transition.csv'
if (!exists("png")) png = 'results/spectra_spike_transition.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
# The same figure as PNG and, beside it, SVG (for papers).
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400,600 enhanced font ",11"
  } else {
    set terminal png size 1400,600
  }
  set output png
} else {
  set terminal svg size 1400,600 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
Ms = system(sprintf("awk -F, '/^#/ {next} !seen++ {for (i = 1; i <= NF; i++) if ($i == \"M\") k = i; next} {print $k}' '%s' | sort -n | uniq | tr '\\n' ' '", csv))
cval = system(sprintf("awk -F, '/^#/ {next} !seen++ {for (i = 1; i <= NF; i++) if ($i == \"c\") k = i; next} {print $k; exit}' '%s'", csv)) + 0.0
s2text = system(sprintf("awk -F, '/^#/ {next} !seen++ {for (i = 1; i <= NF; i++) if ($i == \"sigma2\") k = i; next} {if (k) print $k; exit}' '%s'", csv))
s2 = strlen(s2text) > 0 ? s2text + 0.0 : 1.0
# The limits on a fine grid (the sweep's 19 points would smear the kink at the threshold): BBP /
# Baik-Silverstein for the top eigenvalue, Paul (2007) for the squared overlap, in units of sigma2.
thr = 1 + sqrt(cval)
top_limit(l) = l <= thr ? s2 * (1 + sqrt(cval))**2 : s2 * l * (1 + cval / (l - 1))
overlap_limit(l) = l <= thr ? 0 : (1 - cval / (l - 1)**2) / (1 + cval / (l - 1))
set samples 1001
M1 = word(Ms, 1) + 0
M2 = word(Ms, words(Ms)) + 0
set multiplot layout 1, 2 title sprintf("BBP transition (c = M/N = %g, threshold ell = 1 + sqrt c = %.4g); %s", cval, 1 + sqrt(cval), trials_text)
set grid
set key top left box opaque
set arrow 1 from thr, graph 0 to thr, graph 1 nohead dt 2 lc rgb "#555555"
set label 1 sprintf("ell = 1 + sqrt c = %.3f", thr) at thr, graph 0.04 offset 0.5, 0 font ",9"
set xlabel "population spike ell"
set ylabel "top sample eigenvalue"
plot csv using "ell":(column("M") == M1 ? column("top_mean") : 1/0):"top_std_error" with yerrorbars pt 7 lc rgb "#1f77b4" title sprintf("M = %d: mean ± s.e.", M1), \
     csv using "ell":(column("M") == M2 ? column("top_mean") : 1/0):"top_std_error" with yerrorbars pt 5 lc rgb "#2ca02c" title sprintf("M = %d: mean ± s.e.", M2), \
     top_limit(x) with lines lw 2 lc rgb "#d62728" title "limit (BBP / Baik-Silverstein)", \
     csv using "ell":(column("M") == M2 ? column("limit") : 1/0) with points pt 1 ps 1.2 lc rgb "#d62728" title "limit at the sweep points (CSV)"
set ylabel "squared overlap <v, e_1>^2"
set yrange [-0.05:1.05]
plot csv using "ell":(column("M") == M1 ? column("overlap_mean") : 1/0):"overlap_std_error" with yerrorbars pt 7 lc rgb "#1f77b4" title sprintf("M = %d: mean ± s.e.", M1), \
     csv using "ell":(column("M") == M2 ? column("overlap_mean") : 1/0):"overlap_std_error" with yerrorbars pt 5 lc rgb "#2ca02c" title sprintf("M = %d: mean ± s.e.", M2), \
     overlap_limit(x) with lines lw 2 lc rgb "#d62728" title "limit (Paul 2007)", \
     csv using "ell":(column("M") == M2 ? column("overlap_limit") : 1/0) with points pt 1 ps 1.2 lc rgb "#d62728" title "limit at the sweep points (CSV)"
unset multiplot
unset yrange
}
