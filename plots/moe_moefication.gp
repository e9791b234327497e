# noisy paper Sec. 5 (Figs. 4, 5, 11 shape) on a synthetic network: accuracy (left) and the accuracy
# drop from clean (right) vs input noise, dense net and MoEfied net at several numbers of active
# experts s of E; mean +- standard error over seeds.
# Usage: gnuplot -e "csv='results/moe_moefication.csv'; png='results/moe_moefication.png'" plots/moe_moefication.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/moe_moefication.csv'
if (!exists("png")) png = 'results/moe_moefication.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k}' '%s' | sort -n | uniq | tr '\\n' ' '", name, csv))
first_value(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k; exit}' '%s'", name, csv))
levels = col_values("active")
E = first_value("experts")
purity = first_value("block_purity")
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1300,550 enhanced font ",11"
  } else {
    set terminal png size 1300,550
  }
  set output png
} else {
  set terminal svg size 1300,550 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title sprintf("Dense vs MoEfied (E = %s experts, co-activation clusters, block purity %.2f), accuracy under input noise; %s", E, purity + 0, trials_text)
set xlabel "input-noise standard deviation {/Symbol s}"
set grid
set key bottom left box opaque
set title "test accuracy"
set ylabel "accuracy (%)"
plot for [i = 1:words(levels)] csv using (column("active") == word(levels, i) + 0 ? column("sigma") : 1/0):(100 * column("accuracy")):(100 * column("accuracy_se")) \
       with yerrorlines pt 7 lw (word(levels, i) + 0 == 0 ? 3 : 1.5) lc i \
       title (word(levels, i) + 0 == 0 ? "dense" : sprintf("MoEfied, %s of %s active", word(levels, i), E))
set title "accuracy drop from clean (percentage points)"
set ylabel "clean - noisy accuracy"
set key top left box opaque
plot for [i = 1:words(levels)] csv using (column("active") == word(levels, i) + 0 ? column("sigma") : 1/0):(100 * column("drop")):(100 * column("drop_se")) \
       with yerrorlines pt 7 lw (word(levels, i) + 0 == 0 ? 3 : 1.5) lc i \
       title (word(levels, i) + 0 == 0 ? "dense" : sprintf("MoEfied, %s of %s active", word(levels, i), E))
unset multiplot
}
